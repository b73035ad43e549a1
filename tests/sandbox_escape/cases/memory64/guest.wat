;; Declares a second, 64-bit memory (the memory64 proposal).
(module
  (memory (export "memory") 1)
  (memory $wide i64 1)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2)))
