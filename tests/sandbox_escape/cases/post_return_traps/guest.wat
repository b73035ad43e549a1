;; Its post-return function (run after the host has read the output) traps.
(module
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2))
  (func (export "cabi_post_limina:skill/skill@0.1.0#invoke") (param i32)
    unreachable))
