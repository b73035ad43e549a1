;; Keeps each call's input in its linear memory and answers with what the call before left
;; there: `{"left": <that input>}`, or `{"left": null}` when it finds nothing. It tries to read
;; across calls — another agent's, or its own session's earlier one.
(module
  (memory (export "memory") 1)
  ;; limina:describe
  ;; limina:realloc
  (data (i32.const 12288) "{\22left\22:")
  (data (i32.const 12300) "null")
  ;; The last input's length at 8192, its bytes from 8196 (at most 4,000).
  (func (export "limina:skill/skill@0.1.0#invoke")
    (param $name i32) (param $name-len i32) (param $input i32) (param $input-len i32)
    (param i32 i32 i32 i32 i32 i32 i64 i32 i32) (result i32)
    (local $left i32)
    (local.set $left (i32.load (i32.const 8192)))
    (memory.copy (i32.const 16384) (i32.const 12288) (i32.const 8))
    (if (local.get $left)
      (then (memory.copy (i32.const 16392) (i32.const 8196) (local.get $left)))
      (else
        (memory.copy (i32.const 16392) (i32.const 12300) (i32.const 4))
        (local.set $left (i32.const 4))))
    (i32.store8 (i32.add (i32.const 16392) (local.get $left)) (i32.const 125))
    (if (i32.gt_u (local.get $input-len) (i32.const 4000)) (then unreachable))
    (memory.copy (i32.const 8196) (local.get $input) (local.get $input-len))
    (i32.store (i32.const 8192) (local.get $input-len))
    (i32.store8 (i32.const 4112) (i32.const 0))
    (i32.store (i32.const 4116) (i32.const 16384))
    (i32.store (i32.const 4120) (i32.add (local.get $left) (i32.const 9)))
    (i32.const 4112))
  (func (export "limina:skill/skill@0.1.0#run-hook")
    (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i64 i32 i32) (result i32)
    unreachable))
