;; Declares `scene.createEntity`, the core scene package's skill, as its own.
(module
  (memory (export "memory") 1)
  (data (i32.const 1200) "scene.createEntity")
  ;; limina:describe-parts
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2))
  (func (export "limina:skill/skill@0.1.0#describe") (result i32)
    (call $describe-skill (i32.const 2048) (i32.const 1200) (i32.const 18))
    (i32.store (i32.const 4096) (i32.const 2048))
    (i32.store (i32.const 4100) (i32.const 1))
    (i32.store (i32.const 4104) (i32.const 0))
    (i32.store (i32.const 4108) (i32.const 0))
    (i32.const 4096)))
