"""Shared helpers of the console's pages: roles on views, saving a form through a service, the pure
page shapes (presenters), the forms' common base."""
