import pymysql
pymysql.connect(host="h", password="s3cret")
pymysql.connect(password=env)
