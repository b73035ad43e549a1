;; Declares a table of 100,000 elements; the host allows 20,000.
(module
  (memory (export "memory") 1)
  (table 100000 funcref)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2)))
