;; Grows its table by 100,000 elements, past the host's cap of 20,000 per instance, and traps
;; when the growth is refused, as an allocator would.
(module
  (memory (export "memory") 1)
  (table $t 1 funcref)
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32)
    (if (i32.eq (table.grow $t (ref.null func) (i32.const 100000)) (i32.const -1))
      (then unreachable))
    (i32.const 1100) (i32.const 2)))
