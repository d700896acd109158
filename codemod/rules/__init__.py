"""The rules the analysis decides with, one module per concern (see base.py for the protocol).

Codes: BUF1xx rewrite an attribute, BUF2xx leave it alone because a rewrite could break
something (a safety skip), BUF3xx report a raw tensor whose shape no rewrite fits.  A code
is never reused for another rule.  Each rule module's docstring states the torch fact it
rests on; its golden cases live in `golden/` under names that say what they show.

The order in which the analysis consults them, and the table of codes, are in
`codemod/rules/registry.py`; this package imports nothing, so that the typing code
(codemod/tensors.py) can use a rule module's helpers without loading every rule.
"""
