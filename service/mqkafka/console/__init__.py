"""The web console (``mqk console``): what the CLI shows, in a browser, live.

Starlette serves Jinja2 pages built from :mod:`mqkafka.query` (the layer under the CLI too),
server-sent events carry the live rates, and Chart.js (vendored in ``static/``, MIT, no CDN)
draws them. Read-only unless started with ``--allow-actions``.
"""
