"""The agent frameworks users build on, driven unmodified through agentsnap (issue 12, item 4).

Each ``test_<framework>.py`` skips unless its framework is installed
(``pytest.importorskip``): install a group with
``pip install -r tests/frameworks/requirements-<group>.txt`` or run
``nox -s frameworks``.
"""
