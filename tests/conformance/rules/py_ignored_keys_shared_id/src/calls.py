def g():
    f(1)
    return f(2)
