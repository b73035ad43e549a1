;; Declares 200 pages (12.5 MiB) of initial memory; its manifest allows 4 MiB.
(module
  (memory (export "memory") 200)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2)))
