def f(tmp_x):
    tmp_y = tmp_x + 1
    return tmp_y


keep = 2
