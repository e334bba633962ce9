import psycopg2
db = psycopg2.connect(passwd="x")
pg8000.connection(password="y")
