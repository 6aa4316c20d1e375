/* Skill Console — keyboard shortcuts and small page behaviours. No dependencies besides htmx.
 *
 * Shortcuts (also listed in the "?" dialog):
 *   /            focus the page's search / filter box (or its first field)
 *   g s / g p / g c / g r / g t / g e / g i   go to Skills, Preview, Scenarios, Profiles & stages,
 *                Tools, Releases, Insights
 *   n            "new" on pages that have one (the new form opens with its first field focused)
 *   [ / ]        previous / next page of a long list (the pager's links)
 *   ?            show the shortcut list
 *   Ctrl+Enter   (⌘+Enter on macOS) submit the form you are typing in
 *   Enter        in a one-line field of an editor (<form data-enter-stays>): nothing — only
 *                Ctrl+Enter or the Save button saves the editor
 *   Esc          leave the current field / close the dialog
 */
(function () {
  "use strict";

  function typing(el) {
    if (!el) return false;
    var tag = el.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
  }

  // An <input> the browser submits its form from on Enter (text, number, search, e-mail…).
  var NOT_ONE_LINE = /^(submit|button|reset|image|checkbox|radio|file|hidden|range|color)$/;
  function oneLineField(el) {
    return !!el && el.tagName === "INPUT" && !NOT_ONE_LINE.test(el.type);
  }

  function go(selector) {
    var link = document.querySelector(selector);
    if (link) window.location.href = link.href;
  }

  var pendingG = false;
  var pendingTimer = null;

  document.addEventListener("keydown", function (e) {
    // Ctrl/Cmd + Enter submits the form of the focused field (htmx forms included).
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      var form = (document.activeElement && document.activeElement.form) ||
        (document.activeElement && document.activeElement.closest && document.activeElement.closest("form")) ||
        document.querySelector("form[data-primary]");
      if (form) {
        e.preventDefault();
        // the submit button of the part of the form being typed in (data-submit-scope: the test
        // call's JSON box sends the JSON), else the form's default one
        var scope = document.activeElement && document.activeElement.closest &&
          document.activeElement.closest("[data-submit-scope]");
        var submitter = (scope && form.contains(scope) && scope.querySelector("button[type=submit]")) ||
          form.querySelector("[data-default-submit]") || undefined;
        if (form.requestSubmit) form.requestSubmit(submitter); else form.submit();
      }
      return;
    }
    // An editor (<form data-enter-stays>) is not submitted by Enter in one of its one-line fields
    // (the browser's implicit submission would save a half-written skill); not while an input
    // method is composing (Enter picks the characters there), never in a textarea or on a button.
    if (e.key === "Enter" && !e.isComposing && oneLineField(e.target) &&
        e.target.form && e.target.form.hasAttribute("data-enter-stays")) {
      e.preventDefault();
      return;
    }
    if (e.key === "Escape") {
      var dlg = document.getElementById("shortcut-help");
      if (dlg && dlg.open) { dlg.close(); return; }
      if (typing(document.activeElement)) document.activeElement.blur();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || typing(document.activeElement)) return;

    if (pendingG) {
      pendingG = false;
      clearTimeout(pendingTimer);
      var map = { s: "skills", p: "preview", c: "scenarios", r: "restrictions", t: "tools", e: "releases", i: "insights" };
      if (map[e.key]) { e.preventDefault(); go('[data-nav="' + map[e.key] + '"]'); }
      return;
    }
    if (e.key === "g") {
      pendingG = true;
      pendingTimer = setTimeout(function () { pendingG = false; }, 1200);
      return;
    }
    if (e.key === "/") {
      var box = document.querySelector("[data-search]") ||
        document.querySelector("main input:not([type=hidden]):not([disabled]), main textarea, main select");
      if (box) { e.preventDefault(); box.focus(); if (box.select) box.select(); }
      return;
    }
    if (e.key === "n") {
      var n = document.querySelector("[data-shortcut-new]");
      if (n) { e.preventDefault(); window.location.href = n.href; }
      return;
    }
    if (e.key === "[" || e.key === "]") {
      var step = document.querySelector(e.key === "[" ? "[data-page-prev]" : "[data-page-next]");
      if (step) { e.preventDefault(); window.location.href = step.href; }
      return;
    }
    if (e.key === "?") {
      var help = document.getElementById("shortcut-help");
      if (help && help.showModal) { e.preventDefault(); help.showModal(); }
    }
  });

  // Live filter of table rows: <input data-filter="#table-id"> and rows with data-filter-text.
  document.addEventListener("input", function (e) {
    var input = e.target;
    if (!input.matches || !input.matches("[data-filter]")) return;
    var scope = document.querySelector(input.getAttribute("data-filter"));
    if (!scope) return;
    var needle = input.value.trim().toLowerCase();
    var shown = 0;
    scope.querySelectorAll("[data-filter-text]").forEach(function (row) {
      var hit = !needle || row.getAttribute("data-filter-text").toLowerCase().indexOf(needle) !== -1;
      row.hidden = !hit;
      if (hit) shown += 1;
    });
    var empty = scope.querySelector("[data-filter-empty]");
    if (empty) empty.hidden = shown !== 0;
  });

  // A table wider than its box scrolls inside it (console.css): mark the box data-scrolls and put
  // the hint (its text is the body's data-scroll-hint, in the page's language) above it.
  function markScrollers() {
    var text = document.body.getAttribute("data-scroll-hint");
    document.querySelectorAll(".table-wrap").forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      box.toggleAttribute("data-scrolls", scrolls);
      var hint = box.previousElementSibling;
      if (!hint || !hint.classList.contains("scroll-hint")) {
        if (!scrolls || !text) return;
        hint = document.createElement("p");
        hint.className = "scroll-hint";
        hint.textContent = text;
        box.parentNode.insertBefore(hint, box);
      }
      hint.classList.toggle("is-shown", scrolls);
    });
  }
  document.addEventListener("DOMContentLoaded", markScrollers);
  window.addEventListener("resize", markScrollers);
  document.addEventListener("htmx:afterSettle", markScrollers);

  // The "?" button of the top bar opens the shortcut list (as the "?" key does).
  document.addEventListener("click", function (e) {
    var btn = e.target.closest && e.target.closest("[data-shortcut-help]");
    var help = document.getElementById("shortcut-help");
    if (btn && help && help.showModal) help.showModal();
  });

  // A tool picker's option: its label shows whether the box is ticked.
  document.addEventListener("change", function (e) {
    var box = e.target;
    if (!box.matches || !box.matches("label[data-tool-option] > input[type=checkbox]")) return;
    box.closest("label").classList.toggle("is-checked", box.checked);
  });

  // Forms that need a confirmation: <form data-confirm="text">.
  document.addEventListener("submit", function (e) {
    var msg = e.target.getAttribute && e.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) e.preventDefault();
  }, true);

  // Preview page: choosing a saved scenario shows its script; editing the script means "pasted".
  function scenarioScripts() {
    var node = document.getElementById("scenario-scripts");
    if (!node) return null;
    try { return JSON.parse(node.textContent); } catch (err) { return null; }
  }
  document.addEventListener("change", function (e) {
    if (!e.target.matches || !e.target.matches("[data-scenario-select]")) return;
    var scripts = scenarioScripts();
    var area = document.querySelector("[data-script-area]");
    if (scripts && area && e.target.value && scripts[e.target.value] !== undefined) {
      area.value = scripts[e.target.value];
    }
  });
  document.addEventListener("input", function (e) {
    if (!e.target.matches || !e.target.matches("[data-script-area]")) return;
    var select = document.querySelector("[data-scenario-select]");
    var scripts = scenarioScripts();
    if (select && select.value && scripts && scripts[select.value] !== e.target.value) select.value = "";
  });

  // Show which element htmx is updating (and keep focus where it was); not an element polling for
  // a background task's outcome (data-poll), which would blink every second.
  document.addEventListener("htmx:beforeRequest", function (e) {
    var t = e.detail && e.detail.target;
    if (t && !t.hasAttribute("data-poll")) t.setAttribute("aria-busy", "true");
  });
  document.addEventListener("htmx:afterSettle", function (e) {
    var t = e.detail && e.detail.target;
    if (t) t.removeAttribute("aria-busy");
  });
})();

/* Skill editor: keep the rendered manual scrolled to the part being edited. */
(function () {
  "use strict";
  function sync() {
    var area = document.getElementById("id_content");
    var box = document.querySelector("#live-preview [data-manual-preview]");
    if (!area || !box) return;
    var range = area.scrollHeight - area.clientHeight;
    var ratio = range > 0 ? area.scrollTop / range : 0;
    if (area.selectionStart !== undefined && area.value.length &&
        area.selectionStart >= area.value.length - 2) ratio = 1;  // typing at the end
    box.scrollTop = ratio * (box.scrollHeight - box.clientHeight);
  }
  document.addEventListener("scroll", function (e) {
    if (e.target && e.target.id === "id_content") sync();
  }, true);
  document.addEventListener("htmx:afterSettle", function (e) {
    if (e.detail && e.detail.target && e.detail.target.id === "live-preview") sync();
  });
})();

/* Keyboard focus after a page action, so it never falls back to <body>:
 *  - list actions (enable/disable, delete, restore) redirect to #skill-<code> / #deleted-skill-<pk>,
 *    the id of that row's switch or Restore button (or of the row when it has no button);
 *  - a create form (data-autofocus, the target of the "n" shortcut): its first field;
 *  - a refused save: focus the first field with an error (an offending tool's checkbox first),
 *    or the error summary (role="alert") when only the form as a whole is refused;
 *  - the summary's links move the focus into their field;
 *  - a simulation run (htmx, or a plain POST): focus the results heading. */
(function () {
  "use strict";
  var FIELD = "input:not([type=hidden]):not([disabled]), textarea:not([disabled]), select:not([disabled])";

  function focusInside(target) {
    if (!target) return false;
    var el = target.matches && target.matches(FIELD) ? target :
      (target.querySelector(".is-unregistered input") || target.querySelector("[data-row-focus]") ||
       target.querySelector(FIELD));
    if (!el && target.hasAttribute("tabindex")) el = target;
    if (!el) return false;
    el.focus({ preventScroll: false });
    return document.activeElement === el;
  }

  // The fragment names the control itself (the row's switch or Restore button, or a row with
  // tabindex=-1): the browser focuses a focusable fragment target on its own when it scrolls to
  // it (and would send the focus back to <body> for a row that cannot take it).
  function focusFromHash() {
    var id = decodeURIComponent((window.location.hash || "").slice(1));
    if (!/^(deleted-)?skill-/.test(id)) return false;
    var target = document.getElementById(id);
    if (!target) return false;
    target.focus();
    return true;
  }

  function focusFirstError() {
    var summary = document.querySelector("form [data-error-summary]");
    if (!summary) return false;
    var form = summary.closest("form");
    var fields = form.querySelectorAll(".has-error");
    for (var i = 0; i < fields.length; i++) {
      if (focusInside(fields[i])) return true;
    }
    summary.focus();
    return true;
  }

  function focusResults(scope) {
    var head = scope && scope.querySelector("[data-results-focus]");
    if (head) head.focus();
  }

  // A create form (<form data-autofocus>, where the "n" shortcut leads): its first field, so
  // typing can start at once.
  function focusNewForm() {
    var form = document.querySelector("form[data-autofocus]");
    if (!form) return false;
    var active = document.activeElement;
    if (active && active !== document.body && active.id !== "main") return false;  // already placed
    var first = form.querySelector(FIELD);
    if (!first) return false;
    first.focus();
    return document.activeElement === first;
  }

  function onLoad() {
    if (focusFromHash()) return;
    if (focusFirstError()) return;
    if (focusNewForm()) return;
    var results = document.querySelector("#results[data-focus-on-load]");
    if (results) focusResults(results);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", onLoad);
  else onLoad();

  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("[data-error-link]");
    if (!link) return;
    var target = document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
    if (target && focusInside(target)) e.preventDefault();
  });

  document.addEventListener("htmx:afterSettle", function (e) {
    var t = e.detail && e.detail.target;
    if (t && t.id === "results") focusResults(t);
  });
})();

/* Small screens: the "Menu" button shows and hides the nav. */
(function () {
  "use strict";
  document.addEventListener("click", function (e) {
    var btn = e.target.closest && e.target.closest("[data-nav-toggle]");
    if (!btn) return;
    var bar = btn.closest(".topbar");
    var open = !bar.classList.contains("nav-open");
    bar.classList.toggle("nav-open", open);
    btn.setAttribute("aria-expanded", open ? "true" : "false");
  });
})();

/* Unsaved edits: a form marked data-warn-unsaved warns before its typed text is lost (a nav
 * link, a shortcut, reload or closing the tab). Submitting the form itself does not warn. */
(function () {
  "use strict";
  var dirty = new Set();
  function watched(el) { return el && el.form && el.form.hasAttribute("data-warn-unsaved") ? el.form : null; }
  document.addEventListener("input", function (e) { var f = watched(e.target); if (f) dirty.add(f); });
  document.addEventListener("change", function (e) { var f = watched(e.target); if (f) dirty.add(f); });
  document.addEventListener("submit", function (e) { dirty.delete(e.target); });
  window.addEventListener("beforeunload", function (e) {
    var any = false;
    dirty.forEach(function (f) { if (document.contains(f)) any = true; });
    if (!any) return undefined;
    e.preventDefault();
    e.returnValue = "";
    return "";
  });
})();

/* Preview: which tools JSON (OpenAI or Anthropic) the rounds show. The choice is a radio group
 * in the results; it sets data-payload-format on #results (CSS shows that format's sizes and
 * JSON) and is remembered in localStorage across runs. */
(function () {
  "use strict";
  var KEY = "skill-console.payload-format";

  function stored() {
    try { return window.localStorage.getItem(KEY) === "anthropic" ? "anthropic" : "openai"; } catch (e) { return "openai"; }
  }

  function apply(format) {
    var results = document.getElementById("results");
    if (!results) return;
    results.setAttribute("data-payload-format", format);
    var radios = results.querySelectorAll('input[name="payload_format"]');
    for (var i = 0; i < radios.length; i++) radios[i].checked = radios[i].value === format;
  }

  document.addEventListener("change", function (e) {
    var el = e.target;
    if (!el || el.name !== "payload_format" || !el.closest("#results")) return;
    try { window.localStorage.setItem(KEY, el.value); } catch (err) { /* private mode: this page only */ }
    apply(el.value);
  });
  document.addEventListener("htmx:afterSettle", function (e) {
    var t = e.detail && e.detail.target;
    if (t && t.id === "results") apply(stored());
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { apply(stored()); });
  else apply(stored());
})();

/* Tool picker with a search box (past limits.PICKER_FULL_LIST_MAX registered tools, see
 * templates/includes/tool_picker.html): the search sends the ids the picker already lists as
 * ``selected`` (the answer leaves them out); before new results replace the old ones, the ticked
 * results move into the list of ticked tools, so they stay in the form. A search repeating the
 * last one (same text, same list) is not sent. */
(function () {
  "use strict";
  function parts(input) {
    var box = input.closest("[data-picker-search-box]");
    var chosen = box && box.previousElementSibling;
    if (!chosen || !chosen.hasAttribute("data-picker-chosen")) chosen = null;
    return { box: box, chosen: chosen, results: box && box.querySelector("[data-picker-results]") };
  }

  function keepTicked(p) {
    if (!p.chosen || !p.results) return;
    var ticked = p.results.querySelectorAll("label[data-tool-option]");
    var moved = false;
    for (var i = 0; i < ticked.length; i++) {
      var cb = ticked[i].querySelector("input[type=checkbox]");
      if (cb && cb.checked) { p.chosen.appendChild(ticked[i]); moved = true; }
    }
    if (moved) {
      var none = p.chosen.querySelector("[data-picker-none]");
      if (none) none.remove();
    }
  }

  document.addEventListener("htmx:configRequest", function (e) {
    var elt = e.detail && e.detail.elt;
    if (!elt || !elt.matches || !elt.matches("[data-picker-search]")) return;
    var p = parts(elt);
    keepTicked(p);
    var ids = [];
    if (p.chosen) {
      p.chosen.querySelectorAll("label[data-tool-option]").forEach(function (label) {
        ids.push(label.getAttribute("data-tool-option"));
      });
    }
    // Enter fetches at once; the typing trigger that fires 300 ms later with the same query and
    // the same list would replace the results under the keyboard focus: skip it.
    var key = elt.value + "\n" + ids.join("\n");
    if (elt._pickerLast === key) { e.preventDefault(); return; }
    elt._pickerLast = key;
    e.detail.parameters.selected = ids;
  });
  // The search box's own keys and typing (bound on the box, before they bubble): typing never
  // reaches the form around it (the skill form's live preview listens to its input events);
  // Enter searches at once (the "picker-enter" trigger of includes/tool_picker.html) and, without
  // Ctrl/Cmd, does nothing else.
  function bindSearch(input) {
    if (input._pickerBound) return;
    input._pickerBound = true;
    input.addEventListener("input", function (e) { e.stopPropagation(); });
    input.addEventListener("keydown", function (e) {
      if (e.key !== "Enter") return;
      if (!e.ctrlKey && !e.metaKey) e.preventDefault();
      if (window.htmx) window.htmx.trigger(input, "picker-enter");
    });
  }
  function bindAll(root) {
    if (root.matches && root.matches("[data-picker-search]")) bindSearch(root);
    if (root.querySelectorAll) root.querySelectorAll("[data-picker-search]").forEach(bindSearch);
  }
  document.addEventListener("htmx:load", function (e) { bindAll(e.target); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { bindAll(document); });
  else bindAll(document);

  ["htmx:responseError", "htmx:sendError"].forEach(function (name) {
    document.addEventListener(name, function (e) {  // a failed search may be sent again
      var elt = e.detail && e.detail.elt;
      if (elt && elt.matches && elt.matches("[data-picker-search]")) elt._pickerLast = null;
    });
  });
})();
