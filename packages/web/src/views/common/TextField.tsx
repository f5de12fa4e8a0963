import type { InputHTMLAttributes, ReactNode } from "react";

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "className" | "value" | "onChange" | "children"> {
  label: string;
  value: string;
  onValue: (value: string) => void;
  className?: string;
  children?: ReactNode;
}

/**
 * A labelled text input as the inspector's forms lay them out (`.field`, the label above the input):
 * `onValue` gets what was typed, `className` adds to the label's, and `children` follow the input
 * inside the label (a datalist).
 */
export function TextField(props: TextFieldProps) {
  const { label, onValue, className, children, ...input } = props;
  return (
    <label className={className ? `field ${className}` : "field"}>
      <span>{label}</span>
      <input {...input} onChange={(e) => onValue(e.target.value)} />
      {children}
    </label>
  );
}
