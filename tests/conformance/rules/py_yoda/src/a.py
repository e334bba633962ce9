if 1 == x:
    pass
if x == 2:
    y = x == 3
while x == 4:
    pass
