int* f() {
  int* a = new int;
  return new int;
}
