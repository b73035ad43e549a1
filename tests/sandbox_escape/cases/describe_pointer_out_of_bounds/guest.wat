;; `describe` returns a pointer to its description past the end of its memory.
(module
  (memory (export "memory") 1)
  ;; limina:describe-parts
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2))
  (func (export "limina:skill/skill@0.1.0#describe") (result i32)
    (i32.const 65532)))
