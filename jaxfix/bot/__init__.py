"""The review bot: jaxfix's suggestions posted on a pull request (GitHub) or merge request
(GitLab) as one review, updated in place on the next push instead of stacked.

`python -m jaxfix.bot github|gitlab` runs jaxfix on the checkout, then talks to the host's
documented REST API with the standard library only (jaxfix/bot/rest.py). The composite action
in `action.yml` at the repository root is its GitHub entry point.
"""
