make(a, b, c);
make(x);
