;; `invoke` returns an unaligned pointer to its result.
(module
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:realloc
  (func (export "limina:skill/skill@0.1.0#invoke")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i64 i32 i32) (result i32)
    (i32.const 4113))
  (func (export "limina:skill/skill@0.1.0#run-hook")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i64 i32 i32) (result i32)
    unreachable))
