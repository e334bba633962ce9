class A { void m() { xaby.getFoo(); k.getBar(); } }
