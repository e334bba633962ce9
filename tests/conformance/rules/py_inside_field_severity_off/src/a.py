def f(a=[], b=1, c=[1]):
    return [a]
