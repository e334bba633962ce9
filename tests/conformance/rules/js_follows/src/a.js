'use strict';
foo();
bar();
