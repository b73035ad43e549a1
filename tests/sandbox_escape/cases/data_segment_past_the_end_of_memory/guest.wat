;; An active data segment that starts inside its one page of memory and runs past its end.
(module
  (memory (export "memory") 1)
  (data (i32.const 65530) "0123456789")
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2)))
