;; Returns an output string whose length runs 2 GB past its one page of memory.
(module
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2147483647)))
