"""For tests that a widget's callbacks only look things up: stand-ins that fail if called.

``calls = forbid(monkeypatch, (module, "name"), ...)`` replaces each function with one that
records its name in ``calls`` and raises, so a callback that recomputes fails the test
twice over: its own AssertionError, and a non-empty ``calls``.
"""


def forbid(monkeypatch, *targets):
    calls = []

    def stand_in(label):
        def called(*args, **kwargs):
            calls.append(label)
            raise AssertionError(f"a callback called {label}")
        return called

    for module, name in targets:
        monkeypatch.setattr(module, name, stand_in(f"{module.__name__}.{name}"))
    return calls
