;; Declares 5,000 skills.
(module
  (memory (export "memory") 16)
  ;; limina:describe-parts
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2))
  (func (export "limina:skill/skill@0.1.0#describe") (result i32)
    (local $i i32)
    (loop $each
      (call $describe-skill
        (i32.add (i32.const 65536) (i32.mul (local.get $i) (i32.const 60)))
        (i32.const 1024) (i32.const 11))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $each (i32.lt_u (local.get $i) (i32.const 5000))))
    (i32.store (i32.const 4096) (i32.const 65536))
    (i32.store (i32.const 4100) (i32.const 5000))
    (i32.store (i32.const 4104) (i32.const 0))
    (i32.store (i32.const 4108) (i32.const 0))
    (i32.const 4096)))
