var y = 1;
