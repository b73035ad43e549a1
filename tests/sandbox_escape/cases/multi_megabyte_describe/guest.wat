;; Declares one skill whose description is 4,000,000 bytes long.
(module
  (memory (export "memory") 128)
  ;; limina:describe-parts
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2))
  (func (export "limina:skill/skill@0.1.0#describe") (result i32)
    (call $describe-skill (i32.const 2048) (i32.const 1024) (i32.const 11))
    (i32.store (i32.const 2072) (i32.const 65536))
    (i32.store (i32.const 2076) (i32.const 4000000))
    (i32.store (i32.const 4096) (i32.const 2048))
    (i32.store (i32.const 4100) (i32.const 1))
    (i32.store (i32.const 4104) (i32.const 0))
    (i32.store (i32.const 4108) (i32.const 0))
    (i32.const 4096)))
