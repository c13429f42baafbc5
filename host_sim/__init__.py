"""Host simulator: emulated buses and chips that run the unchanged firmware under CPython."""
