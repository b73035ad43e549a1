;; `invoke` returns `err` with a skill-error case number that does not exist (9 of 5).
(module
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:realloc
  (func (export "limina:skill/skill@0.1.0#invoke")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i64 i32 i32) (result i32)
    (i32.store8 (i32.const 4112) (i32.const 1))
    (i32.store8 (i32.const 4116) (i32.const 9))
    (i32.store (i32.const 4120) (i32.const 1100))
    (i32.store (i32.const 4124) (i32.const 2))
    (i32.const 4112))
  (func (export "limina:skill/skill@0.1.0#run-hook")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i64 i32 i32) (result i32)
    unreachable))
