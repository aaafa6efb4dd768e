'use strict';
// A client driver whose actions exercise the Node.js kit's answers, for the kit's specs:
// what a thrown error, a rejected promise, a late unsupported action, a slow action and an
// error no handler catches become.

const kit = require('../driverkit');

const env = kit.fromEnv();
const d = kit.newDriver({role: env.role, kind: env.kind, product: 'behaviour', version: 'v0.0.1'});
const done = [];
d.handle('throw', () => {
  throw new Error('the product broke');
});
d.handle('reject', () => Promise.reject(new TypeError('a promise rejected')));
d.handle('reject-value', () => Promise.reject('not an Error')); // eslint-disable-line prefer-promise-reject-errors
d.handle('late-unsupported', async () => {
  throw kit.unsupported('this build has no such thing after all');
});
d.handle('wait', async (args, ctx) => {
  await new Promise((resolve) => setTimeout(resolve, args.ms || 0));
  done.push(args.tag);
  return {done: done.slice(), aborted: ctx.signal.aborted};
});
d.handle('crash-later', () => {
  setTimeout(() => {
    throw new Error('a timer threw');
  }, 10);
  setTimeout(() => Promise.reject(new Error('nobody caught this')), 20);
});
d.handle('not-json', () => ({big: 1n}));
d.handle('observe-not-json', () => {
  const cycle = {};
  cycle.self = cycle;
  d.observe('cycle', cycle);
});
d.handle('log', () => {
  console.log('console.log');
  console.info('console.info');
  console.debug('console.debug');
  process.stdout.write('process.stdout.write\n');
  return {logged: true};
});
d.decode((f) => {
  if (f.path === '/throw') {
    throw new Error('this decoder cannot read ' + f.path);
  }
  return {type: f.data.toString('utf8'), opcode: f.binary ? 7 : 0};
});
d.observe('early', {before: 'hello'});
d.main();
