;; Calls the host's `log` import with a message that runs 2 GB past the end of its memory.
(module
  (import "limina:skill/log@0.1.0" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32)
    (call $log (i32.const 2) (i32.const 60000) (i32.const 2147483647))
    (i32.const 1100) (i32.const 2)))
