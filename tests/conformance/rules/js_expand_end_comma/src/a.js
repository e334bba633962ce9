const o = { debug: true, name: 'x' };
