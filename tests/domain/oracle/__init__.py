"""The reference implementation (the ORACLE) of the rule and the simulator, kept verbatim from before
the linear rewrite (issue 10 item 2): ``rules.py``, ``transcript.py`` and ``simulator.py`` as they
were, rescanning the whole history per round and per call. Never used by the product; the property
tests in ``tests/domain/test_linear_equals_oracle.py`` check that the linear code in
``packages/skill-rule/src/skill_rule`` returns exactly what this code returns.
"""
