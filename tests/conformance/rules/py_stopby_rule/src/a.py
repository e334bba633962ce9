for i in x:
    expensive(i)


def g():
    expensive(2)


for j in y:

    def h():
        expensive(3)
