//! `#[kernel]`: declares a GPU kernel once for both builds of `kernels-gpu`.
//!
//! ```ignore
//! /// `c[i] = a[i] + b[i]` for `i < n`.
//! #[kernel]
//! pub unsafe fn vec_add(a: *const f32, b: *const f32, c: *mut f32, n: u32) {
//!     // body
//! }
//! ```
//!
//! expands to
//! - on `nvptx64`: `#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn vec_add(..)`, the
//!   PTX `.entry` of that name;
//! - on the host: the same `pub unsafe fn`, which the CPU emulator calls once per simulated
//!   thread, with a `# Safety` section;
//! - on both: `pub const VEC_ADD: crate::launch::Kernel<(*const f32, *const f32, *mut f32, u32)>`,
//!   the typed handle the host launches it through, so the name and the parameter types
//!   cannot drift from the function.
//!
//! The function is written as an ordinary item (not macro input), so rustfmt formats it.
//!
//! `#[kernel(sm_90a)]` declares a Hopper kernel (wgmma, TMA, setmaxnreg): its entry exists only
//! in the second PTX module, which the builder compiles for `sm_90a` with `--cfg
//! ptx_ladder_hopper`, and it has no host twin (the CPU emulator does not run Hopper
//! instructions); the handle exists on both. Portable kernels export no entry from that build,
//! so each module holds exactly its own kernels.

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use syn::{FnArg, ItemFn, parse_macro_input};

#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let hopper = match attr.to_string().as_str() {
        "" => false,
        "sm_90a" => true,
        _ => {
            let attr = proc_macro2::TokenStream::from(attr);
            return syn::Error::new_spanned(attr, "#[kernel] takes no argument, or `sm_90a` for a Hopper kernel").to_compile_error().into();
        }
    };
    let function = parse_macro_input!(item as ItemFn);
    expand(function, hopper).unwrap_or_else(|e| e.to_compile_error()).into()
}

fn expand(function: ItemFn, hopper: bool) -> syn::Result<proc_macro2::TokenStream> {
    let ItemFn { attrs, vis, sig, block } = function;
    if sig.unsafety.is_none() || sig.abi.is_some() || sig.asyncness.is_some() || sig.constness.is_some() {
        return Err(syn::Error::new_spanned(sig.fn_token, "#[kernel] expects `pub unsafe fn name(..) { .. }`"));
    }
    if !sig.generics.params.is_empty() || !matches!(sig.output, syn::ReturnType::Default) {
        return Err(syn::Error::new_spanned(&sig, "a kernel has no generic parameters and returns nothing"));
    }
    let mut types = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Typed(typed) => types.push(typed.ty.clone()),
            FnArg::Receiver(r) => return Err(syn::Error::new_spanned(r, "a kernel takes no `self`")),
        }
    }
    let name = &sig.ident;
    let inputs = &sig.inputs;
    let handle = format_ident!("{}", name.to_string().to_uppercase());
    let handle_doc = if hopper {
        format!("Typed launch handle of the sm_90a kernel `{name}`: its PTX entry name and parameter types.")
    } else {
        format!("Typed launch handle of [`{name}`]: its PTX entry name and parameter types.")
    };
    let handle_item = quote! {
        #[doc = #handle_doc]
        #vis const #handle: crate::launch::Kernel<(#(#types,)*)> = crate::launch::Kernel::new(stringify!(#name));
    };
    if hopper {
        return Ok(quote! {
            #(#attrs)*
            #[cfg(all(target_arch = "nvptx64", ptx_ladder_hopper))]
            #[unsafe(no_mangle)]
            #vis unsafe extern "ptx-kernel" fn #name(#inputs) #block

            #handle_item
        });
    }
    Ok(quote! {
        #(#attrs)*
        #[cfg(all(target_arch = "nvptx64", not(ptx_ladder_hopper)))]
        #[unsafe(no_mangle)]
        #vis unsafe extern "ptx-kernel" fn #name(#inputs) #block

        #(#attrs)*
        #[doc = ""]
        #[doc = " # Safety"]
        #[doc = " Run only through a launch (or the CPU emulator) with the shape its"]
        #[doc = " module computes, and with pointers to device buffers as large as"]
        #[doc = " the kernel reads and writes."]
        #[cfg(not(target_arch = "nvptx64"))]
        // The section above is there; clippy does not read doc attributes a
        // proc-macro writes when the kernel itself has no doc comment.
        #[allow(clippy::missing_safety_doc)]
        #vis unsafe fn #name(#inputs) #block

        #handle_item
    })
}
