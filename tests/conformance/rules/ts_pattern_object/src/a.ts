class Foo {
  bar() {
    return 1;
  }
}
