if a == None and b != None:
    pass
if len(items) == 0:
    pass
