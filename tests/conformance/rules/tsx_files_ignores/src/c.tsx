var z = 2;
