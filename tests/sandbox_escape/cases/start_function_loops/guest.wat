;; Its start function never returns: instantiating it would hang the host.
(module
  (memory (export "memory") 1)
  (start $spin)
  (func $spin (loop $forever (br $forever)))
  ;; limina:describe
  ;; limina:realloc
  ;; limina:invoke
  (func $run (result i32 i32) (i32.const 1100) (i32.const 2)))
