f(1)
f()
f(1, zz)
def g():
    f(1,
      2)
