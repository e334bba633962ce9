f(a, b, c)
f(b, a, a)
f(b)
