print(1)
pprint(2)
x.print(3)
