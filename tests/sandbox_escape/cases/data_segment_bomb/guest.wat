;; A data segment at the end of a declared 1 GiB memory: initializing it would commit the whole
;; gigabyte before any code runs.
(module
  (memory (export "memory") 16384)
  (data (i32.const 1073741816) "boom!")
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2)))
