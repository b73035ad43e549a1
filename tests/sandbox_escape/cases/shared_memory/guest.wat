;; Declares a second memory that is shared (the threads proposal).
(module
  (memory (export "memory") 1)
  (memory $shared 1 1 shared)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2)))
