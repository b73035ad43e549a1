;; Its `cabi_realloc` hands the host a pointer outside its memory to write the input into.
(module
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2))
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (i32.const -256)))
