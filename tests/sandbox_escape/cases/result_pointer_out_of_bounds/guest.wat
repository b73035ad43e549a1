;; `invoke` returns a pointer to its result far outside its memory.
(module
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:realloc
  (func (export "limina:skill/skill@0.1.0#invoke")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i64 i32 i32) (result i32)
    (i32.const -16))
  (func (export "limina:skill/skill@0.1.0#run-hook")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i64 i32 i32) (result i32)
    unreachable))
