connect(password="nothing to see")
