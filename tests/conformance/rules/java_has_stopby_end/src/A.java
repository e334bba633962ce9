class A {
  void a() { if (x) { System.out.println(1); } }
  void b() { log(2); }
}
