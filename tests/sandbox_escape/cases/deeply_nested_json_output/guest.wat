;; Returns 100,000 nested arrays: [[[[...]]]].
(module
  (memory (export "memory") 8)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32)
    (memory.fill (i32.const 65536) (i32.const 91) (i32.const 100000))
    (memory.fill (i32.const 165536) (i32.const 93) (i32.const 100000))
    (i32.const 65536) (i32.const 200000)))
