from os import path


def join_all(parts):
    result = path.join(*parts)
    print(result)
    return result


def pick(items, key=None):
    def inner():
        b = lambda: 123
        return b
    if key == None:
        return items[0]
    return [i for i in items if i == key]
