import MySQLdb
MySQLdb.connect(password="z")
