package rpcarena.worker; public class Main { public static void main(String[] a) {} }
