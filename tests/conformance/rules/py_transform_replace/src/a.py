def get_value(self):
    return 1


def other():
    return 2
