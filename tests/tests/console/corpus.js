// Console differential corpus: daebug versus Chromium's console (Runtime.evaluate,
// replMode: true, includeCommandLineAPI). Format: each snippet starts with a line
// "// --- <name>" (unique kebab-case); its code is every following line up to the next
// "// ---" line or end of file; blank lines at its end are ignored. Snippets run in
// order in one page, one console entry each, so later snippets read bindings earlier
// ones made (and some redeclare them on purpose). Compared: the completion value as
// rendered, or the thrown error's name. Page: ul#list (li.item one, li.item.done two,
// li.item three), button#save.btn, input#name value Ada, div#out; /data.json is
// {"items":[1,2,3],"total":6}. The page-defined $ snippets must stay last.

// --- await-resolved-promise
await Promise.resolve(1)

// --- await-parenthesized
await (Promise.resolve(2))

// --- await-async-iife
await (async () => 1)()

// --- await-async-iife-nested
await (async () => await (async () => await 9)())()

// --- await-thenable
await { then(r) { r(5) } }

// --- await-thenable-non-function-then
await { then: 1 }

// --- await-newline
await
  Promise.resolve(4)

// --- await-array-destructuring-let
let [awA, awB] = await ([1, 2]);
awA + awB

// --- await-object-rest-var
var { ...awRest } = await ({ p: 1, q: 2 });
awRest

// --- await-in-template-member
const awObj = { y: 'why' };
`${(await Promise.resolve(awObj)).y}`

// --- await-fn-decls
function awFoo(x) { return x + 1 }
async function awKoo() { return 41 }

// --- await-newline-in-call-args
const awN = awFoo(await
  awKoo());
awN

// --- await-null
await null

// --- await-undefined
await undefined

// --- await-number
await 5

// --- await-promise-all
await Promise.all([1, Promise.resolve(2), (async () => 3)()])

// --- await-promise-allsettled
(await Promise.allSettled([Promise.resolve('ok'), Promise.reject('bad')])).map(r => r.status)

// --- await-promise-race
await Promise.race([new Promise(r => setTimeout(() => r('slow'), 0)), Promise.resolve('fast')])

// --- await-promise-any
await Promise.any([Promise.reject(1), Promise.resolve('any')])

// --- await-fetch-status
(await fetch('/data.json')).status

// --- await-fetch-json
await (await fetch('/data.json')).json()

// --- await-fetch-then-json
await fetch('/data.json').then(r => r.json())

// --- await-async-generator-decl
async function* awGen() { yield 1; yield 2; yield 3 }

// --- await-for-await-of-generator
let awSum = 0;
for await (const v of awGen()) awSum += v

// --- await-for-await-of-array
for await (const v of [Promise.resolve('x'), 'y']) v

// --- await-in-template
`sum: ${await Promise.resolve(3)}`

// --- await-in-array-literal
[await 1, await Promise.resolve(2), 3]

// --- await-in-object-literal
({ v: await Promise.resolve(8) })

// --- await-in-computed-key
({ [await Promise.resolve('k')]: 1 })

// --- await-in-ternary-test
(await Promise.resolve(true)) ? 'yes' : 'no'

// --- await-in-ternary-branches
false ? await 'a' : await 'b'

// --- await-typeof
typeof await Promise.resolve(1)

// --- await-settimeout-value
await new Promise(r => setTimeout(() => r(7), 0))

// --- await-tick-then-value
await new Promise(r => setTimeout(r, 0));
'after tick'

// --- await-async-arrow-binding
const awF = async x => (await x) * 2;
await awF(Promise.resolve(21))

// --- await-await
await await Promise.resolve(10)

// --- await-in-call-args
Math.max(await 3, await Promise.resolve(4))

// --- await-destructuring-default
const { awDef = await Promise.resolve('d') } = {};
awDef

// --- await-if-condition
if (await Promise.resolve(0)) 'a'; else 'b'

// --- await-while-condition
let awI = 0;
while (await Promise.resolve(awI < 3)) awI++;
awI

// --- await-for-of-head
for (const v of await Promise.resolve([4, 5])) v

// --- await-try-catch
try { await Promise.reject(new Error('no')) } catch (e) { e.message }

// --- await-comma
(await 1, await 2)

// --- await-binary
await 1 + await 2

// --- await-unary
[-await 5, !await false]

// --- await-function-value
await Math.max

// --- await-async-function-decl
async function awDecl() { return 'decl' }
await awDecl()

// --- await-let-persist
let awLater = await Promise.resolve('persist')

// --- await-let-persist-read
awLater

// --- await-var-persist
var awVar = await Promise.resolve(11)

// --- await-var-on-window
[awVar, 'awVar' in window]

// --- await-then-function-decl
await null;
function fnAfterAwait() { return 'faa' }

// --- await-then-function-decl-read
[fnAfterAwait(), typeof window.fnAfterAwait]

// --- await-then-class-decl
await null;
class ClsAfterAwait { static id = 'caa' }

// --- await-then-class-decl-read
[ClsAfterAwait.id, typeof window.ClsAfterAwait]

// --- await-microtask-order
const mq = [];
queueMicrotask(() => mq.push('micro'));
mq.push('sync');
await null;
mq

// --- await-side-effect-order
const awOrder = [];
awOrder.push(1);
await null;
awOrder.push(2);
awOrder

// --- await-this-after
await null;
this === window

// --- await-identifier-in-nested-function
(function () { var await = 6; return await })()

// --- await-in-block
{ await null; 'in block' }

// --- completion-number
42

// --- completion-string
'str'

// --- completion-arithmetic
1 + 2 * 3

// --- completion-two-statements
'a'; 'b'

// --- completion-comma
(1, 2, 3)

// --- completion-assignment
let cpA;
cpA = 5

// --- completion-compound-assignment
cpA += 10

// --- completion-postfix
cpA++

// --- completion-null
null

// --- completion-undefined
undefined

// --- completion-void
void 0

// --- completion-logical
[true && 'and', 0 || 'or', null ?? 'nullish']

// --- completion-if-true-block
if (true) { 'then' }

// --- completion-if-else
if (false) { 'then' } else { 'else' }

// --- completion-if-else-no-braces
if (true) 'a'; else 'b'

// --- completion-if-false-no-else
if (false) 1

// --- completion-expr-then-if-false
'before'; if (false) 1

// --- completion-if-empty-block
'x'; if (true) {}

// --- completion-assignment-in-if
let cIf = 0;
if (true) { cIf = 1 }

// --- completion-for-of
for (const x of [1, 2, 3]) x

// --- completion-for-of-expression
for (const x of [1, 2, 3]) x * 10

// --- completion-for-of-empty
'pre'; for (const x of []) x

// --- completion-for-of-break
for (const x of [1, 2, 3]) { if (x === 2) break; x }

// --- completion-for-of-continue
for (const x of [1, 2, 3]) { if (x === 3) continue; x }

// --- completion-for-let
for (let i = 0; i < 3; i++) i

// --- completion-for-empty-body
'pre'; for (let i = 0; i < 3; i++);

// --- completion-for-in
for (const k in { a: 1, b: 2 }) k

// --- completion-while
let wc = 0;
while (wc < 3) wc++

// --- completion-while-break
while (true) { 'w'; break }

// --- completion-while-false
'pre'; while (false) {}

// --- completion-do-while
let dwc = 0;
do { dwc++ } while (dwc < 3)

// --- completion-do-once
do 'once'; while (false)

// --- completion-labelled-continue
outer: for (const a of [1, 2]) { for (const b of [1, 2]) { if (b === 2) continue outer; a * 10 + b } }

// --- completion-switch-match
switch (2) { case 1: 'one'; break; case 2: 'two'; break; default: 'other' }

// --- completion-switch-fallthrough
switch (1) { case 1: 'a'; case 2: 'b'; default: 'c' }

// --- completion-switch-fallthrough-break
switch (1) { case 1: 'a'; case 2: 'b'; break; case 3: 'c' }

// --- completion-switch-no-match
'pre'; switch (9) { case 1: 'a' }

// --- completion-switch-default-first
switch (9) { default: 'd'; case 1: 'one' }

// --- completion-try
try { 'tv' } catch { 'cv' }

// --- completion-try-caught
try { throw 0 } catch { 'caught' }

// --- completion-try-catch-finally
try { throw 1 } catch (e) { 'c' + e } finally { 'f' }

// --- completion-try-finally
try { 'body' } finally { 'fin' }

// --- completion-try-empty-catch
'z'; try { throw 1 } catch {}

// --- completion-try-error-message
try { throw new Error('e') } catch (e) { e.message }

// --- completion-finally-return-override
(() => { try { return 'try' } finally { return 'finally' } })()

// --- completion-labelled-block-break
lbl: { 'x'; break lbl; 'y' }

// --- completion-labelled-expression
lblE: 1

// --- completion-block
{ 1; 2 }

// --- completion-block-let
{ let cb = 1; cb + 1 }

// --- completion-empty-statement
;

// --- completion-empty-statements
;;

// --- completion-expr-then-empty-block
1; {}

// --- completion-expr-then-let
1; let cpQ = 2

// --- completion-expr-then-const
'k'; const cpK = 2

// --- completion-expr-then-var
'e'; var cpV = 3

// --- completion-expr-then-function
'f'; function cpFn() {}

// --- completion-expr-then-class
'g'; class CpCls {}

// --- completion-var-only
var cpOnlyVar = 1

// --- completion-let-only
let cpOnlyLet = 1

// --- completion-const-only
const cpOnlyConst = 1

// --- completion-function-only
function cpOnlyFn() {}

// --- completion-class-only
class CpOnlyCls {}

// --- completion-declarations-then-read
[cpQ, cpK, cpV, typeof cpFn, typeof CpCls, cpOnlyVar, cpOnlyLet, cpOnlyConst]

// --- completion-push-in-loop
const cAcc = [];
for (const n of [1, 2]) cAcc.push(n)

// --- completion-function-expression
(function () { return 1 })

// --- completion-after-await
await null; 'post-await'

// --- completion-await-last
'a'; await null

// --- completion-if-await
if (true) { await 'aw-if' }

// --- completion-for-of-await
for (const v of [1, 2]) await v

// --- completion-labelled-await-break
lblAw: { await 'kept'; break lblAw }

// --- completion-try-await-catch
try { await Promise.reject(1) } catch (e) { e }

// --- completion-throw-caught-in-loop
for (const n of [1, 2]) { try { if (n === 2) throw n } catch (e) { 'caught ' + e } }

// --- decl-let
let dl1 = 1

// --- decl-let-read
dl1

// --- decl-const
const dc1 = { k: 'v' }

// --- decl-const-read
dc1.k

// --- decl-var
var dv1 = 'var'

// --- decl-var-read
dv1

// --- decl-function
function df1(a, b) { return a * b }

// --- decl-function-call
df1(6, 7)

// --- decl-class
class DCls { constructor(n) { this.n = n } get double() { return this.n * 2 } }

// --- decl-class-use
new DCls(4).double

// --- decl-async-function
async function dAsync() { return 'async' }

// --- decl-async-function-call
await dAsync()

// --- decl-generator
function* dGen() { yield 1; yield 2 }

// --- decl-generator-spread
[...dGen()]

// --- decl-generator-iterator
const genIt = dGen()

// --- decl-generator-next
genIt.next()

// --- decl-generator-next-value
genIt.next().value

// --- decl-generator-done
genIt.next()

// --- destructure-array-holes
const [dh1, , dh3] = [1, 2, 3]

// --- destructure-array-holes-read
[dh1, dh3]

// --- destructure-array-defaults
let [dd1 = 10, dd2 = 20] = [undefined, 2];
[dd1, dd2]

// --- destructure-array-rest
const [dr1, ...drRest] = [1, 2, 3, 4];
[dr1, drRest]

// --- destructure-nested-object
const { dn: { deep: dDeep } } = { dn: { deep: 'D' } };
dDeep

// --- destructure-computed-key
const dKey = 'dyn';
const { [dKey]: dComputed } = { dyn: 42 };
dComputed

// --- destructure-rename-default
const { orig: dRenamed, missing: dMiss = 'def' } = { orig: 'o' };
[dRenamed, dMiss]

// --- destructure-object-rest
let { dA, ...dOthers } = { dA: 1, dB: 2, dC: 3 }

// --- destructure-object-rest-read
[dA, dOthers]

// --- destructure-var-nested-array
var [dvx, [dvy, dvz]] = [1, [2, 3]]

// --- destructure-var-nested-array-read
[dvx + dvy + dvz, 'dvy' in window]

// --- destructure-string
const [dStr0, dStr1] = 'hi';
dStr1 + dStr0

// --- destructure-map-entries
const [[dMapK, dMapV]] = new Map([['a', 1]]);
[dMapK, dMapV]

// --- destructure-swap
let sw1 = 1, sw2 = 2;
[sw1, sw2] = [sw2, sw1];
[sw1, sw2]

// --- destructure-assign-to-global-prop
({ dAssign: globalThis.dProp } = { dAssign: 5 });
dProp

// --- destructure-params
(({ a, b: [c] = [9] }) => a + c)({ a: 1 })

// --- redeclare-let-first
let rl = 1

// --- redeclare-let-second
let rl = 2;
rl

// --- redeclare-let-read
rl

// --- redeclare-const-first
const rc = 'first'

// --- redeclare-const-second
const rc = 'second'

// --- redeclare-const-read
rc

// --- redeclare-class-first
class RCls { who() { return 'first' } }

// --- redeclare-class-second
class RCls { who() { return 'second' } }

// --- redeclare-class-read
new RCls().who()

// --- redeclare-let-as-const-first
let lc = 1

// --- redeclare-let-as-const-second
const lc = 2;
lc

// --- redeclare-const-as-let-first
const cThenL = 1

// --- redeclare-const-as-let-second
let cThenL = 2;
cThenL += 1

// --- redeclare-let-as-class-first
let lToC = 1

// --- redeclare-let-as-class-second
class lToC {}
typeof lToC

// --- redeclare-closure-first
let cap = 'old';
function readCap() { return cap }

// --- redeclare-closure-second
let cap = 'new'

// --- redeclare-closure-sees-new-binding
readCap()

// --- redeclare-let-with-await-first
let rlAwait = await Promise.resolve('a')

// --- redeclare-let-with-await-second
let rlAwait = await Promise.resolve('b');
rlAwait

// --- redeclare-base-class-first
class Base1 { v() { return 1 } }
class Derived1 extends Base1 {}

// --- redeclare-base-class-second
class Base1 { v() { return 2 } }

// --- redeclare-base-class-derived-keeps-old
[new Derived1().v(), new Base1().v()]

// --- redeclare-function-first
function redefFn() { return 1 }

// --- redeclare-function-second
function redefFn() { return 2 }
redefFn()

// --- redeclare-var-first
var rv = 1

// --- redeclare-var-without-init
var rv;
rv

// --- var-in-for-loop
for (var loopVar = 0; loopVar < 3; loopVar++) {}

// --- var-in-for-loop-read
loopVar

// --- let-in-for-loop-not-global
for (let loopLet = 0; loopLet < 3; loopLet++) {}
typeof loopLet

// --- var-in-for-of
for (var forOfVar of ['p', 'q']) {}

// --- var-in-for-of-read
forOfVar

// --- block-let-not-leaked
{ let blockScoped = 1 }

// --- block-let-not-leaked-read
typeof blockScoped

// --- annexb-if-true
if (true) { function annexF() { return 1 } }

// --- annexb-if-true-call
annexF()

// --- annexb-block
{ function blockFn() { return 2 } }

// --- annexb-block-call
blockFn()

// --- annexb-if-await
if (await Promise.resolve(true)) { function annexG() {} }

// --- annexb-if-await-read
typeof annexG

// --- annexb-if-false
if (false) { function annexNever() {} }

// --- annexb-if-false-read
[typeof annexNever, 'annexNever' in window]

// --- annexb-switch
switch (1) { case 1: function annexSw() { return 'sw' } }

// --- annexb-switch-call
annexSw()

// --- hoisting-function-same-snippet
hoisted();
function hoisted() { return 3 }

// --- hoisting-var-same-snippet
typeof hoistVar;
var hoistVar = 1

// --- hoisting-function-across-snippets
hoisted() + 1

// --- closure-counter
const makeCounter = () => { let c = 0; return () => ++c };
const ctr = makeCounter()

// --- closure-counter-twice
ctr(); ctr()

// --- closure-counter-again
ctr()

// --- closure-over-later-let-decl
function readLater() { return laterLet }

// --- closure-over-later-let-missing
readLater()

// --- closure-over-later-let-declared
let laterLet = 'now'

// --- closure-over-later-let-read
readLater()

// --- default-param-reads-global-let
function withDefault(x = dl1) { return x }
withDefault()

// --- this-is-window
this === window

// --- this-in-arrow
(() => this === globalThis)()

// --- this-in-sloppy-function
(function () { return this === window })()

// --- typeof-arguments
typeof arguments

// --- let-not-on-window
typeof globalThis.dl1

// --- const-not-on-window
'dc1' in window

// --- class-not-on-window
'DCls' in window

// --- var-on-window
'dv1' in window

// --- function-on-window
window.df1 === df1

// --- var-non-configurable
Object.getOwnPropertyDescriptor(window, 'dv1').configurable

// --- delete-var-fails
delete window.dv1

// --- delete-let-sloppy
delete dl1

// --- implicit-global
implicitG = 3;
window.implicitG

// --- implicit-global-delete
delete window.implicitG

// --- class-expression-name
const AnonCls = class {};
AnonCls.name

// --- arrow-name-inference
const arrowName = () => {};
arrowName.name

// --- multiple-declarators
let m1 = 1, m2 = m1 + 1;
m2

// --- global-getter
Object.defineProperty(globalThis, 'gGetter', { get() { return 'got' }, configurable: true });
gGetter

// --- class-inheritance
class Animal { speak() { return 'generic' } }
class Dog extends Animal { speak() { return 'woof/' + super.speak() } }
new Dog().speak()

// --- class-static-block
class WithStatic { static count; static { WithStatic.count = 3 } }
WithStatic.count

// --- error-reference-unknown
undefinedNameXyz

// --- error-reference-tdz-block
{ tdzA; let tdzA = 1 }

// --- error-reference-tdz-top
tdzTop;
let tdzTop = 1

// --- error-reference-tdz-top-still
tdzTop

// --- error-reference-tdz-typeof
typeof tdzTop

// --- error-reference-tdz-top-redeclare
let tdzTop = 2;
tdzTop

// --- error-let-init-throws
let afterThrow = (() => { throw new Error('init') })()

// --- error-let-init-throws-read
afterThrow

// --- error-let-init-throws-redeclare
let afterThrow = 3;
afterThrow

// --- error-type-null-property
null.foo

// --- error-type-undefined-property
const errObj = {};
errObj.missing.deeper

// --- error-type-not-a-function
errObj.missing()

// --- error-type-call-number
(5)()

// --- error-const-declare
const ro = 1

// --- error-const-assign
ro = 2

// --- error-const-unchanged
ro

// --- error-const-redeclare-as-let
let ro = 'mutable';
ro = 'changed';
ro

// --- error-const-increment-in-block
const roInc = 1;
{ roInc++ }

// --- error-syntax-let-number
let 1 = 2

// --- error-syntax-unbalanced-paren
(1 + 2

// --- error-syntax-unbalanced-brace
function brokenFn() {

// --- error-syntax-unclosed-string
'abc

// --- error-syntax-await-in-sync-function
function syncWithAwait() { await 1 }

// --- error-syntax-await-in-sync-arrow
const syncArrow = () => await 1

// --- error-syntax-let-await
let await = 1

// --- error-syntax-duplicate-let
let dupInSnippet = 1;
let dupInSnippet = 2

// --- error-syntax-var-then-let-first
var varThenLet = 1

// --- error-syntax-var-then-let
let varThenLet = 2

// --- error-syntax-let-then-var-first
let letThenVar = 1

// --- error-syntax-let-then-var
var letThenVar = 2

// --- error-syntax-function-then-let
let df1 = 'shadow'

// --- error-syntax-break-outside
break

// --- error-syntax-new-target
new.target

// --- error-syntax-super
super.x

// --- error-syntax-import-meta
import.meta

// --- error-syntax-static-import
import data from '/data.json'

// --- error-syntax-strict-with
'use strict';
with ({}) {}

// --- error-reference-strict-undeclared
'use strict';
undeclaredStrict = 1

// --- error-range-array-length
new Array(-1)

// --- error-range-repeat
'x'.repeat(-1)

// --- error-range-tofixed
(1).toFixed(200)

// --- error-range-bigint
BigInt(1.5)

// --- error-range-stack-overflow
(function recurse() { return recurse() + 1 })()

// --- error-throw-error
throw new Error('x')

// --- error-throw-number
throw 5

// --- error-throw-string
throw 'str'

// --- error-throw-object
throw { a: 1 }

// --- error-throw-null
throw null

// --- error-custom-subclass
class CustomError extends Error { constructor(m) { super(m); this.name = 'CustomError' } }
throw new CustomError('custom')

// --- error-await-rejected
await Promise.reject(new Error('rej'))

// --- error-await-rejected-typeerror
await Promise.reject(new TypeError('t'))

// --- error-await-rejected-value
await Promise.reject(42)

// --- error-await-async-throw
await (async () => { throw new RangeError('r') })()

// --- error-await-async-throw-after-await
async function failsLater() { await null; throw new SyntaxError('late') }
await failsLater()

// --- error-await-thenable-reject
await { then(_, rej) { rej(new EvalError('th')) } }

// --- error-await-timeout-reject
await new Promise((_, rej) => setTimeout(() => rej(new URIError('later')), 0))

// --- error-await-promise-any
await Promise.any([Promise.reject(1), Promise.reject(2)])

// --- error-json-parse
JSON.parse('{')

// --- error-in-getter
({ get boom() { throw new TypeError('g') } }).boom

// --- error-class-without-new
DCls()

// --- error-symbol-to-string
Symbol() + ''

// --- error-bigint-mix
1n + 1

// --- error-uri
decodeURIComponent('%')

// --- error-frozen-define
Object.defineProperty(Object.freeze({}), 'a', { value: 1 })

// --- error-reduce-empty
[].reduce((a, b) => a + b)

// --- error-destructure-null
const { errD } = null

// --- error-new-promise-no-executor
new Promise()

// --- error-proxy-trap
new Proxy({}, { get() { throw new EvalError('e') } }).x

// --- error-new-arrow
new (() => {})()

// --- error-dom-selector
document.querySelector('[')

// --- error-dom-create-element
document.createElement('1x')

// --- error-structured-clone-function
structuredClone(() => 1)

// --- error-atob
atob('*')

// --- error-side-effect-kept
errSide = 1;
throw new Error('after')

// --- error-side-effect-kept-read
errSide

// --- error-eval-await
eval('await 1')

// --- dom-title
document.title

// --- dom-item-count
document.querySelectorAll('.item').length

// --- dom-li-texts
[...document.querySelectorAll('li')].map(li => li.textContent)

// --- dom-button-text
document.querySelector('#save').textContent

// --- dom-button-element
document.querySelector('#save')

// --- dom-node-list
document.querySelectorAll('li.done')

// --- dom-input-value
document.querySelector('#name').value

// --- dom-input-set-value
document.querySelector('#name').value = 'Grace';
document.querySelector('#name').value

// --- dom-input-attribute-unchanged
document.querySelector('#name').getAttribute('value')

// --- dom-input-restore
document.querySelector('#name').value = 'Ada'

// --- dom-input-type
document.querySelector('#name').type

// --- dom-computed-display-div
getComputedStyle(document.querySelector('#out')).display

// --- dom-computed-display-li
getComputedStyle(document.querySelector('li')).display

// --- dom-class-contains
document.querySelector('li:nth-child(2)').classList.contains('done')

// --- dom-not-done-texts
[...document.querySelectorAll('.item:not(.done)')].map(e => e.textContent)

// --- dom-set-text
document.getElementById('out').textContent = 'hi';
document.getElementById('out').textContent

// --- dom-set-html
document.querySelector('#out').innerHTML = '<b>bold</b> text';
document.querySelector('#out').innerHTML

// --- dom-first-child-tag
document.querySelector('#out').firstElementChild.tagName

// --- dom-clear-out
document.querySelector('#out').replaceChildren();
document.querySelector('#out').childNodes.length

// --- dom-list-children
document.querySelector('#list').children.length

// --- dom-list-html
document.querySelector('#list').innerHTML

// --- dom-class-name
document.querySelector('#save').className

// --- dom-dataset-outer-html
document.querySelector('#save').dataset.x = '1';
document.querySelector('#save').outerHTML

// --- dom-remove-attribute
document.querySelector('#save').removeAttribute('data-x');
document.querySelector('#save').hasAttribute('data-x')

// --- dom-click-listener-once
let clicks = 0;
document.querySelector('#save').addEventListener('click', () => clicks++, { once: true });
document.querySelector('#save').click();
document.querySelector('#save').click();
clicks

// --- dom-custom-event
const evLog = [];
document.addEventListener('ping', e => evLog.push(e.detail), { once: true });
document.dispatchEvent(new CustomEvent('ping', { detail: 'pong' }));
evLog

// --- dom-append-li
const extraLi = document.createElement('li');
extraLi.textContent = 'four';
document.querySelector('#list').append(extraLi);
document.querySelectorAll('li').length

// --- dom-remove-li
extraLi.remove();
document.querySelectorAll('li').length

// --- dom-last-child
document.querySelector('li:last-child').textContent

// --- dom-next-sibling
document.querySelector('li').nextElementSibling.textContent

// --- dom-closest
document.querySelector('.done').closest('ul').id

// --- dom-matches
document.querySelector('#name').matches('input[value]')

// --- dom-instanceof
document.querySelector('#save') instanceof HTMLButtonElement

// --- dom-named-access
window.out === document.getElementById('out')

// --- dom-compat-mode
document.compatMode

// --- dom-tag-names
['#list', '#save', '#name', '#out'].map(s => document.querySelector(s).tagName)

// --- dom-missing-optional
document.querySelector('#missing')?.textContent ?? 'none'

// --- dom-text-content-ul
document.querySelector('#list').textContent

// --- json-stringify
JSON.stringify({ a: 1, b: [1, 2], c: 'x' })

// --- json-stringify-indent
JSON.stringify({ a: 1 }, null, 2)

// --- json-parse
JSON.parse('{"x":[1,2],"y":null}')

// --- fetch-then-json
await fetch('/data.json').then(r => r.json())

// --- fetch-json-total
(await (await fetch('/data.json')).json()).total

// --- fetch-ok
(await fetch('/data.json')).ok

// --- fetch-text-parsed
JSON.parse(await (await fetch('/data.json')).text()).items

// --- fetch-sum-check
const dataResp = await (await fetch('/data.json')).json();
dataResp.items.reduce((a, b) => a + b, 0) === dataResp.total

// --- value-object-literal
({ a: 1, b: [1, 2] })

// --- value-nested-object
({ user: { name: 'Ada', tags: ['x', 'y'], address: { city: 'London' } } })

// --- value-map
new Map([[1, 'a'], [2, 'b']])

// --- value-set
new Set([1, 2])

// --- value-array-from
Array.from({ length: 3 }, (_, i) => i * i)

// --- value-set-dedupe
[...new Set([1, 1, 2, 3, 3])]

// --- string-pad
'Hello'.padStart(8, '*')

// --- string-trim-split
' a, b ,c '.split(',').map(s => s.trim())

// --- string-at
'abc'.at(-1)

// --- string-upper-sharp-s
'Straße'.toUpperCase()

// --- string-replace-all
'a-b-c'.replaceAll('-', '+')

// --- string-encode-uri
encodeURIComponent('a b&c/d')

// --- regex-exec-groups
/(\d+)-(\d+)/.exec('10-20').slice(1)

// --- regex-named-groups
({ ...'2024-05'.match(/(?<y>\d+)-(?<m>\d+)/).groups })

// --- regex-match-all
[...'a1b22c333'.matchAll(/\d+/g)].map(m => m[0])

// --- regex-test
/^[a-z]+$/i.test('Hello')

// --- regex-value
/ab+c/gi

// --- regex-replace-fn
'john smith'.replace(/\b\w/g, c => c.toUpperCase())

// --- structured-clone-value
structuredClone({ a: [1, { b: 2 }], m: new Map([['k', 1]]) })

// --- structured-clone-independent
const sc1 = { n: { v: 1 } };
const sc2 = structuredClone(sc1);
sc2.n.v = 2;
[sc1.n.v, sc2.n.v]

// --- object-entries
Object.entries({ a: 1, b: 2 })

// --- object-from-entries
Object.fromEntries([['x', 1], ['y', 2]].map(([k, v]) => [k, v * 10]))

// --- object-assign
Object.assign({}, { a: 1 }, { b: 2 }, { a: 3 })

// --- object-group-by
Object.groupBy([1, 2, 3, 4], n => (n % 2 ? 'odd' : 'even')).odd

// --- sort-default
[10, 9, 1].sort()

// --- sort-numeric
[10, 9, 1].sort((a, b) => a - b)

// --- sort-objects
[{ n: 'b', v: 2 }, { n: 'a', v: 1 }].sort((x, y) => x.v - y.v).map(o => o.n)

// --- to-sorted
const unsorted = [3, 1, 2];
[unsorted.toSorted(), unsorted]

// --- reduce-sum
[1, 2, 3, 4].reduce((a, b) => a + b, 0)

// --- reduce-index
[{ id: 'a', v: 1 }, { id: 'b', v: 2 }].reduce((acc, o) => ({ ...acc, [o.id]: o.v }), {})

// --- flat-infinity
[1, [2, [3, [4]]]].flat(Infinity)

// --- optional-chaining
const oc = { a: { b: null } };
[oc.a?.b?.c, oc.x?.(), oc.a.b ?? 'dflt']

// --- logical-assignment
const nullishObj = { a: null, b: 0 };
nullishObj.a ??= 'filled';
nullishObj.b ||= 'zero';
nullishObj

// --- spread-array
[...'abc', ...[1, 2]]

// --- spread-object
({ ...{ a: 1, b: 1 }, b: 2 })

// --- spread-args
Math.max(...[1, 5, 3])

// --- class-private-fields
class Counter { #n = 0; inc() { return ++this.#n } static isCounter(o) { return #n in o } }
const counter = new Counter();
counter.inc();
[counter.inc(), Counter.isCounter(counter), Counter.isCounter({})]

// --- class-getter-setter
class Temp { #c = 0; get f() { return this.#c * 9 / 5 + 32 } set f(v) { this.#c = (v - 32) * 5 / 9 } }
const temp = new Temp();
temp.f = 212;
temp.f

// --- class-instance-value
new DCls(2)

// --- symbol-value
Symbol('tag')

// --- symbol-for-description
Symbol.for('app').description

// --- symbol-typeof
typeof Symbol.iterator

// --- bigint-power
10n ** 20n

// --- bigint-safe-integer
BigInt(Number.MAX_SAFE_INTEGER) + 2n

// --- number-float-sum
0.1 + 0.2

// --- number-negative-zero
-0

// --- number-object-is
Object.is(-0, 0)

// --- number-nan
NaN

// --- number-infinity
[1 / 0, -1 / 0]

// --- number-unsafe
2 ** 53 + 1

// --- number-tofixed
(1.005).toFixed(2)

// --- number-parse
[Number('12px'), parseFloat('12px'), parseInt('08'), parseInt('ff', 16)]

// --- array-sparse
[1, , 3]

// --- array-empty-slots
Array(3)

// --- array-fill
new Array(3).fill(0)

// --- date-fixed-iso
new Date(Date.UTC(2020, 0, 15, 12)).toISOString()

// --- date-fixed-parse
new Date('2020-01-01T00:00:00Z').getUTCDay()

// --- intl-currency
new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(1234.5)

// --- url-search-param
new URL('/data.json?x=1&y=two', 'https://example.com').searchParams.get('y')

// --- url-search-params-entries
Object.fromEntries(new URLSearchParams('a=1&b=2'))

// --- text-encoder
Array.from(new TextEncoder().encode('hé'))

// --- typed-array
new Uint8Array([1, 2, 300])

// --- base64
[btoa('hello'), atob('aGVsbG8=')]

// --- freeze-check
const frozen = Object.freeze({ a: 1 });
frozen.a = 2;
[frozen.a, Object.isFrozen(frozen)]

// --- function-value
function namedDecl(a, b) { return a + b }
namedDecl

// --- arrow-value
(a, b) => a + b

// --- class-value
DCls

// --- error-value-not-thrown
new TypeError('shown')

// --- error-message-value
new RangeError('msg').message

// --- odd-object-literal-alone
{ a: 1 }

// --- odd-object-literal-two-keys
{ a: 1, b: 2 }

// --- odd-object-literal-string-key
{ 'k': 'v' }

// --- odd-empty-braces
{}

// --- odd-object-literal-await
{ a: await Promise.resolve(1) }

// --- odd-object-literal-await-two
{ a: await Promise.resolve(1), b: [await 2] }

// --- odd-object-literal-shorthand
{ awObj }

// --- odd-block-statement-let
{ let oddX = 1; oddX + 1 }

// --- odd-anonymous-function-statement
function(){}

// --- odd-parenthesized-function
(function(){})

// --- odd-comment-only
// just a comment

// --- odd-block-comment-only
/* nothing here */

// --- odd-trailing-line-comment
1 + 2 // three

// --- odd-trailing-block-comment
'tail' /* end */

// --- odd-leading-comment
// leading comment line
4 * 4

// --- odd-return-top-level
return 5

// --- odd-promise-not-awaited
Promise.resolve(3)

// --- odd-async-iife-not-awaited
(async () => 9)()

// --- odd-let-as-identifier
(function () { var let = 4; return let })()

// --- odd-yield-as-identifier
(function () { var yield = 2; return yield * 2 })()

// --- odd-async-as-identifier
(function () { var async = 3; return async + 1 })()

// --- odd-with
with ({ wa: 1 }) wa

// --- odd-with-block
with ({ wv: 'w' }) { wv + '!' }

// --- odd-octal
010

// --- odd-octal-escape
'\101'

// --- odd-leading-zero-decimal
08

// --- odd-duplicate-params
(function (a, a) { return a })(1, 2)

// --- odd-arguments-in-function
(function () { return arguments.length })(1, 2, 3)

// --- odd-arguments-callee
(function (n) { return n <= 1 ? 1 : n * arguments.callee(n - 1) })(5)

// --- odd-arguments-top-level
arguments

// --- odd-new-target-in-function
(function () { return new.target === undefined })()

// --- odd-dynamic-import-json
(await import('/data.json', { with: { type: 'json' } })).default.total

// --- odd-eval
eval('1 + 1')

// --- odd-eval-var
eval('var evalVar = 5');
evalVar

// --- odd-eval-var-deletable
delete window.evalVar

// --- odd-eval-let-local
eval('let evalLet = 1');
typeof evalLet

// --- odd-indirect-eval
(0, eval)('var indirectVar = 7');
indirectVar

// --- odd-function-constructor-this
Function('return this')() === window

// --- odd-global-this-prop
globalThis.gv = 1;
gv

// --- odd-use-strict-directive
'use strict';
(function () { return typeof this })()

// --- odd-strictness-not-persisted
(function () { return typeof this })()

// --- odd-html-open-comment
1 <!-- html comment

// --- odd-html-close-comment
2
--> html close comment

// --- odd-hashbang
#!/usr/bin/env node
'hashbang'

// --- odd-wrapper-escape-brace
1 }; { 2

// --- odd-wrapper-escape-iife
'esc' })(); (async () => {

// --- odd-wrapper-escape-comment
*/ 3

// --- odd-script-tag-in-string
'</script><b>x</b>'.length

// --- odd-unicode-identifier
const café = 'crème';
café

// --- odd-unicode-escape-identifier
const \u0061bcEsc = 'escaped';
abcEsc

// --- odd-line-continuation-string
'line\
continued'

// --- odd-multiline-template
`a
b`

// --- odd-label-break-loop
odd: for (;;) { break odd }

// --- odd-asi-return-object
(function () { return
  { v: 1 } })()

// --- odd-asi-array-continuation
const asiArr = [1, 2]
const asiB = asiArr
[1]
asiB

// --- odd-document-all
typeof document.all

// --- odd-void-await
void await Promise.resolve(1)

// --- odd-number-method
1..toString()

// --- helper-dollar
$('#save')

// --- helper-dollar-id
$('#save').id

// --- helper-dollar-missing
$('#missing')

// --- helper-dollar-start-node
$('li', document.querySelector('#list')).textContent

// --- helper-dollar-dollar-length
$$('.item').length

// --- helper-dollar-dollar-map
$$('li').map(e => e.textContent)

// --- helper-dollar-dollar-is-array
Array.isArray($$('li'))

// --- helper-dollar-dollar-missing
$$('#missing')

// --- helper-dollar-dollar-start-node
$$('.done', document.querySelector('#list')).length

// --- helper-xpath-length
$x('//li').length

// --- helper-xpath-text
$x('//li')[1].textContent

// --- helper-xpath-attribute
$x('//button/@id')[0].value

// --- helper-xpath-count
$x('count(//li)')

// --- helper-keys
keys({ a: 1, b: 2 })

// --- helper-values
values({ a: 1, b: 2 })

// --- helper-last-result-seed
1 + 1

// --- helper-last-result
$_

// --- helper-last-result-times-ten
$_ * 10

// --- helper-last-result-string-seed
'str' + 'ing'

// --- helper-last-result-string
$_.length

// --- helper-last-result-awaited-seed
await Promise.resolve('awaited')

// --- helper-last-result-awaited
$_

// --- helper-last-result-before-error
'before-error'

// --- helper-last-result-error
nonexistentHelperVar

// --- helper-last-result-after-error
$_

// --- helper-last-result-undefined-seed
var helperVarDecl = 1

// --- helper-last-result-undefined
$_

// --- helper-typeof-copy
typeof copy

// --- helper-typeof-monitor-events
typeof monitorEvents

// --- helper-typeof-unmonitor-events
typeof unmonitorEvents

// --- helper-typeof-get-event-listeners
typeof getEventListeners

// --- helper-typeof-dir
typeof dir

// --- helper-typeof-dirxml
typeof dirxml

// --- helper-typeof-table
typeof table

// --- helper-typeof-inspect
typeof inspect

// --- helper-typeof-monitor
typeof monitor

// --- helper-typeof-debug
typeof debug

// --- helper-typeof-query-objects
typeof queryObjects

// --- helper-typeof-clear
typeof clear

// --- helper-typeof-xpath
typeof $x

// --- helper-get-event-listeners-none
Object.keys(getEventListeners(document.querySelector('#out')))

// --- helper-in-closure-decl
const getSaveId = () => $('#save').id

// --- helper-in-closure-call
getSaveId()

// --- helper-window-has-dollar-dollar
typeof window.$$

// --- helper-after-await
await null;
typeof $

// --- helper-page-defines-dollar
window.$ = (s) => 'page ' + s;
$('x')

// --- helper-page-dollar-persists
$('y')

// --- helper-page-dollar-dollar-still-helper
$$('li').length

// --- helper-page-dollar-deleted-same-snippet
delete window.$;
typeof $

// --- helper-dollar-back
typeof $

// --- redeclare-after-failure-first
let keepMe = 1

// --- redeclare-after-failure-second
throw new Error('early'); let keepMe = 2

// --- redeclare-after-failure-read
keepMe

// --- redeclare-const-after-failure-first
const keepC = 1

// --- redeclare-const-after-failure-second
null.x; const keepC = 2

// --- redeclare-const-after-failure-read
keepC

// --- restricted-global-let-location
let location = 1

// --- restricted-global-let-undefined
let undefined = 1

// --- configurable-global-let-name
let name = 'shadowed';
name

// --- configurable-global-let-name-window
window.name === name

// --- function-global-not-configurable-decl
function fncfg() { return 1 }

// --- function-global-not-configurable
Object.getOwnPropertyDescriptor(globalThis, 'fncfg').configurable

// --- function-global-then-var
var fncfg = 2;
typeof fncfg

// --- function-global-then-function
function fncfg() { return 3 }
fncfg

// --- closure-const-redeclared-first
const cc = 1;
function readCc() { return cc }

// --- closure-const-redeclared-second
const cc = 2

// --- closure-const-redeclared-read
readCc()

// --- closure-write-first
let cw = 1;
function bump() { return ++cw }

// --- closure-write-call
bump()

// --- closure-write-read
cw

// --- closure-write-redeclared
let cw = 10;
bump()

// --- closure-shorthand-first
let sh = 5;
const shObj = () => ({ sh })

// --- closure-shorthand-second
let sh = 6;
shObj().sh

// --- closure-callee-this-first
let who = function () { return this === undefined ? 'undefined' : this === globalThis ? 'global' : 'other' };
const callWho = () => who()

// --- closure-callee-this
callWho()

// --- closure-typeof-tdz-first
const readLater = () => typeof laterName;
let laterName = 'now'

// --- closure-typeof-tdz-read
readLater()

// --- delete-global-var
var dv = 1;
delete dv

// --- delete-configurable-global
globalThis.dprop = 1;
delete dprop

// --- strict-let
'use strict';
let sx = 1;
sx

// --- strict-var
'use strict';
var sv = 2;
sv

// --- strict-this-undefined
'use strict';
(function () { return this })() === undefined

// --- strict-with-refused
'use strict';
with ({}) {}

// --- strict-function-persists
'use strict';
function strictFn() { return typeof this }

// --- strict-function-call
strictFn()

// --- strict-reads-earlier-let
'use strict';
rl + 1

// --- strict-octal-refused
'use strict';
010

// --- new-target-in-function
(function () { return new.target })()

// --- arguments-in-function
(function () { return arguments.length })(1, 2)

// --- arguments-in-top-arrow
(() => typeof arguments)()

// --- arguments-in-method
({ m() { return arguments[0] } }).m('first')

// --- helper-get-event-listeners-add
document.querySelector('#save').addEventListener('click', function onSave() {}, { capture: true, passive: true });
document.querySelector('#save').addEventListener('keydown', () => {});
'added'

// --- helper-get-event-listeners-found
const saveListeners = await getEventListeners(document.querySelector('#save'));
[Object.keys(saveListeners), saveListeners.click.length, saveListeners.click[0].listener.name, saveListeners.click[0].useCapture, saveListeners.click[0].passive, saveListeners.click[0].once, saveListeners.click[0].type]

// --- helper-get-event-listeners-is-the-function
(await getEventListeners(document.querySelector('#save'))).keydown[0].listener.toString()

// --- helper-get-event-listeners-window
Array.isArray((await getEventListeners(window)).click ?? [])

// --- helper-query-objects-class
class Probe1 {}
globalThis.keptProbes = [new Probe1(), new Probe1()];
typeof queryObjects(Probe1)

// --- helper-query-objects-count
const probesFound = await queryObjects(Probe1);
Array.isArray(probesFound) ? probesFound.length : typeof probesFound

// --- await-with-sloppy-with
with ({ wv: 1 }) { await null; wv + 1 }

// --- await-with-legacy-octal
010 + await Promise.resolve(1)

// --- await-with-yield-as-name
var yieldName = 0, yield = 3;
await null;
yield

// --- await-in-nested-plain-function-is-a-name
function awaitName() { var await = 4; return await }
awaitName()
