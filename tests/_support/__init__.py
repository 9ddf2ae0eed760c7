"""Helpers shared by the test files (issue 15): one copy of each.

* :mod:`tests._support.ci` — the CI marker variables and the autouse fixture
  that clears them (``from tests._support.ci import _local_not_ci``);
* :mod:`tests._support.offline` — the offline guard;
* :mod:`tests._support.roundtrip` — record a call against a fake server, then
  replay it offline (whole, or each half with a client factory);
* :mod:`tests._support.sleeps` — stand-ins for the module an SDK's retry code
  sleeps through, recording each wait.

The fake provider servers stay at ``tests/fake_*.py``: besides being imported
by that path, they are copied by path into the pytester projects of
test_plugin_modes, test_report_html and test_examples_e2e.
"""
