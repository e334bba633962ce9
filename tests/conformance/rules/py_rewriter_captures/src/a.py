call(x, y, g(x, z, x))
call(a, b, [a, c])
